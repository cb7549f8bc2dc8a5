// Nodes are immutable values: later passes (binder, rewrites) build new nodes instead of editing these.
export const freeze: <T>(value: T) => Readonly<T> = Object.freeze
