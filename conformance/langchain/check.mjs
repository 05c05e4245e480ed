// Drives `ctool mcp` through the JavaScript LangChain MCP adapter (@langchain/mcp-adapters), over stdio
// and over streamable HTTP, with the client configuration docs/clients.md gives: lists the tools and
// calls each one, and checks every answer. Run by conformance/langchain.sh.
//
//   node check.mjs CTOOL DB HTTP_URL
import { MultiServerMCPClient } from "@langchain/mcp-adapters";

const [ctool, db, url] = process.argv.slice(2);
const wantTools = ["search_stores", "search_events", "search_products", "get_user_profile"];
// One call of each tool, and what its answer must hold.
const calls = [
  ["search_stores", { sql_query: "SELECT store_name FROM stores_typed WHERE category = 'cafe' ORDER BY store_id" }, (d) => d.count > 0 && "store_name" in d.results[0]],
  ["search_events", { sql_query: "SELECT event_name, start_date FROM events_typed WHERE is_free ORDER BY start_date LIMIT 3" }, (d) => d.count === 3],
  ["search_products", { sql_query: "SELECT product_name, price_yen FROM products_typed WHERE price_yen <= 1000 LIMIT 5" }, (d) => d.count > 0 && d.results.every((r) => r.price_yen <= 1000)],
  ["get_user_profile", { profile_id: "user_criollo_heavy" }, (d) => d.profile_id === "user_criollo_heavy"],
  ["search_stores", { sql_query: "DELETE FROM stores" }, (d) => d.kind === "refused"],
];

const transports = {
  stdio: {
    transport: "stdio",
    command: ctool,
    args: ["mcp", "--db", db, "--profile-id", "user_criollo_heavy"],
    env: { NARRATIVE_DATA_FILE: "narrative_data.csv" },
  },
  http: { transport: "http", url },
};

// text is the text of the tool's answer as the adapter returns it: a string, content blocks, or a
// string holding them as JSON.
function text(answer) {
  if (typeof answer === "string") {
    try {
      const parsed = JSON.parse(answer);
      if (parsed && (Array.isArray(parsed) || parsed.type === "text")) return text(parsed);
    } catch {}
    return answer;
  }
  if (Array.isArray(answer)) return answer.map((b) => (typeof b === "string" ? b : b.text ?? "")).join("");
  if (answer && answer.type === "text") return answer.text;
  if (answer && typeof answer.content === "string") return answer.content;
  return JSON.stringify(answer);
}

let failures = 0;
for (const [name, config] of Object.entries(transports)) {
  const client = new MultiServerMCPClient({ mcpServers: { "azabudai-hills": config } });
  try {
    const tools = await client.getTools();
    const names = tools.map((t) => t.name.replace(/^.*__/, "")).sort();
    const ok = JSON.stringify(names) === JSON.stringify([...wantTools].sort());
    console.log(`${name}: tools ${names.join(", ")}${ok ? "" : "  FAIL"}`);
    if (!ok) failures++;
    for (const [tool, args, check] of calls) {
      const t = tools.find((x) => x.name.replace(/^.*__/, "") === tool);
      const start = performance.now();
      let answer, doc;
      try {
        answer = await t.invoke(args);
      } catch (err) {
        answer = err.message; // a tool error (isError) may come back as a thrown ToolException
      }
      const ms = (performance.now() - start).toFixed(1);
      const s = text(answer);
      try {
        doc = JSON.parse(s.slice(s.indexOf("{")));
      } catch {
        doc = {};
      }
      let pass = false;
      try {
        pass = Boolean(check(doc));
      } catch {}
      const summary = "count" in doc ? `${doc.count} rows` : doc.kind ? `kind ${doc.kind}` : doc.profile_id ? `profile ${doc.profile_id}` : s.slice(0, 80);
      console.log(`${name}: ${tool} ${JSON.stringify(Object.values(args)[0]).slice(0, 60)}: ${summary} (${ms} ms)${pass ? "" : "  FAIL: " + s.slice(0, 200)}`);
      if (!pass) failures++;
    }
  } catch (err) {
    console.log(`${name}: FAIL ${err.stack ?? err}`);
    failures++;
  } finally {
    await client.close();
  }
}
console.log(failures === 0 ? "langchain: every call answered as expected" : `langchain: ${failures} failure(s)`);
process.exit(failures === 0 ? 0 : 1);
