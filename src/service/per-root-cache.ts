// Values made from an object of the model and a service root, kept: every write of a batch and every read
// by key asks for the same few (one root per Host header clients send). Bounded per object, so odd Host headers cannot grow it.
const MAX_ROOTS = 100

/** `make(owner, serviceRoot)`, computed once per pair and kept while `owner` lives. */
export function perRootCache<Owner extends object, Value>(make: (owner: Owner, serviceRoot: string) => Value) {
  const byOwner = new WeakMap<Owner, Map<string, Value>>()
  return (owner: Owner, serviceRoot: string): Value => {
    let byRoot = byOwner.get(owner)
    if (!byRoot) byOwner.set(owner, (byRoot = new Map()))
    let value = byRoot.get(serviceRoot)
    if (value === undefined) {
      value = make(owner, serviceRoot)
      if (byRoot.size >= MAX_ROOTS) byRoot.clear()
      byRoot.set(serviceRoot, value)
    }
    return value
  }
}
