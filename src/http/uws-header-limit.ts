// The bound on a request head (request line and headers), set for uWebSockets.js before its binary
// loads: the binary reads `UWS_HTTP_MAX_HEADERS_SIZE` once, when it is loaded, and answers a longer head
// `431` itself (4 KB by default). decisions.md §8 lets one query option be 8,000 characters and an `in`
// take 500 items; percent-encoded, an option of 8,000 two-byte UTF-8 characters is 48,000 bytes, so the
// head may have 64 KiB — room for that and the other headers, and still a bound per connection.
//
// This module must be evaluated before 'uWebSockets.js' is: `uws.ts` imports it first, and every other
// module takes uWS from `uws.ts`. An ESM `import` is hoisted, so setting the variable in the importing
// module itself would come too late.
export const MAX_REQUEST_HEAD_BYTES = 64 * 1024

// An operator's own value wins (a proxy in front may allow more or less); ours is the default.
process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(MAX_REQUEST_HEAD_BYTES)
