// The two flavours of service root (decisions.md §1): the reference flavour (HTTP Basic; `$batch` is 501)
// and the token flavour (a token in the header, the query or the path). HTTP finds the flavour of a
// request; the stages below it (service, batch) decide by it, so it lives here where all of them may look.
export type Flavour = 'reference' | 'token'
