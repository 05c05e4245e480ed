// Package benchkit is what the benchmark programs share: MCP clients over stdio and streamable HTTP
// that speak raw JSON-RPC (so the SDK's own costs are not in the client's figures), started child
// processes stopped within a bound, the memory of a process tree, and percentiles.
package benchkit
