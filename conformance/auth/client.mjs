// The end-to-end check of `ctool mcp --auth-issuer`: the MCP TypeScript SDK's client, with its
// client-credentials provider, against ctool and a real authorization server (issuer.mjs). The SDK
// does the whole flow the MCP authorization specification describes: a 401, the protected resource
// metadata it names, the authorization server's metadata, a token for the resource (RFC 8707), the
// call again. Then the answers ctool gives without a token, with another resource's token and
// without a scope are checked as they are on the wire.
// Usage: node client.mjs MCP_URL ISSUER. Prints one line per check; exits 1 if any fails.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';

const [url, issuer] = process.argv.slice(2);
const metadataURL = new URL('/.well-known/oauth-protected-resource/mcp', url).href;
let failures = 0;
function check(name, ok, detail) {
  console.log(`    ${ok ? 'ok' : 'FAIL'}: ${name}${ok ? '' : ': ' + JSON.stringify(detail)}`);
  if (!ok) failures++;
}

// The SDK's client-credentials request sends the provider's own scope (not the metadata's
// scopes_supported, which its other flows use), so each client names the scopes it was registered with.
async function connect(clientId, secret, scope) {
  const provider = new ClientCredentialsProvider({ clientId, clientSecret: secret, expectedIssuer: issuer, scope });
  const client = new Client({ name: 'ctool-auth-e2e', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  return { client, token: provider.tokens()?.access_token };
}

function post(token, body) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  if (token) headers.Authorization = `Bearer ${token}`;
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
}

const call = (name, args) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

// The metadata, as a client finds it.
const meta = await (await fetch(metadataURL)).json();
check('protected resource metadata names the resource, the issuer and the scopes',
  meta.resource === url && meta.authorization_servers?.[0] === issuer &&
  meta.scopes_supported?.join() === 'ctool:search,ctool:profile', meta);

// No token.
let r = await post(undefined, call('search_stores', { sql_query: 'SELECT 1' }));
check('no token: 401, WWW-Authenticate names the metadata',
  r.status === 401 && r.headers.get('www-authenticate') === `Bearer resource_metadata="${metadataURL}"`,
  [r.status, r.headers.get('www-authenticate')]);

// The concierge: both scopes, its own profile.
const concierge = await connect('concierge', 'concierge-secret', 'ctool:search ctool:profile');
check('the SDK client got a token through the 401 and the metadata', !!concierge.token);
const tools = await concierge.client.listTools();
check('tools/list: the four tools', tools.tools.map((t) => t.name).sort().join() ===
  'get_user_profile,search_events,search_products,search_stores', tools.tools.map((t) => t.name));
const profileTool = tools.tools.find((t) => t.name === 'get_user_profile');
check('get_user_profile: profile_id optional', !(profileTool?.inputSchema?.required ?? []).includes('profile_id'), profileTool?.inputSchema);
let res = await concierge.client.callTool({ name: 'get_user_profile', arguments: {} });
check("get_user_profile: the caller's own profile (profile_id claim)",
  !res.isError && res.structuredContent?.profile_id === 'user_criollo_heavy', res);
res = await concierge.client.callTool({ name: 'get_user_profile', arguments: { profile_id: 'user_family_weekend' } });
check("get_user_profile: another user's id is not found",
  res.isError && res.content[0].text === '{"error":"ユーザーが見つかりません: user_family_weekend","kind":"not_found"}', res);
res = await concierge.client.callTool({ name: 'search_stores', arguments: { sql_query: "SELECT store_name FROM stores WHERE category = 'cafe'" } });
check('search_stores', !res.isError && res.structuredContent?.count > 0, res);
await concierge.client.close();

// The searcher: ctool:search only.
const searcher = await connect('searcher', 'searcher-secret', 'ctool:search');
const listed = await searcher.client.listTools();
check('tools/list with ctool:search: the three search tools', listed.tools.map((t) => t.name).sort().join() ===
  'search_events,search_products,search_stores', listed.tools.map((t) => t.name));
r = await post(searcher.token, call('get_user_profile', {}));
check('get_user_profile without ctool:profile: 403 insufficient_scope', r.status === 403 &&
  r.headers.get('www-authenticate') === `Bearer error="insufficient_scope", scope="ctool:profile", resource_metadata="${metadataURL}"`,
  [r.status, r.headers.get('www-authenticate')]);
await searcher.client.close();

// A token the same issuer minted for another resource (RFC 8707).
const as = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`).then((x) => x.ok ? x : fetch(`${issuer}/.well-known/openid-configuration`))).json();
const minted = await (await fetch(as.token_endpoint, {
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: 'Basic ' + Buffer.from('concierge:concierge-secret').toString('base64') },
  body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'ctool:search', resource: 'https://other.example/api' }),
})).json();
r = await post(minted.access_token, call('search_stores', { sql_query: 'SELECT 1' }));
check("another resource's token: 401 invalid_token", !!minted.access_token && r.status === 401 &&
  r.headers.get('www-authenticate') === `Bearer error="invalid_token", resource_metadata="${metadataURL}"`,
  [minted, r.status, r.headers.get('www-authenticate')]);

process.exit(failures ? 1 : 0);
