// The one way into uWebSockets.js: the head bound of `uws-header-limit.ts` is set before the binary
// loads (module requests are evaluated in the order written, so the limit comes first).
import './uws-header-limit.js'

export * from 'uWebSockets.js'
