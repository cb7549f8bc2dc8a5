// `$select` as a plain list of properties of one set, for reads that do not need the expression
// language (reading by key). `*` and an absent option mean every property.
import { ODataError } from '../errors.js'
import type { EntitySetModel, PropertyModel } from '../model/model.js'

export function selectedProperties(set: EntitySetModel, select: string | undefined): readonly PropertyModel[] {
  if (select === undefined || select.trim() === '' || select.trim() === '*') return set.properties
  const chosen = new Set<PropertyModel>()
  for (const raw of select.split(',')) {
    const name = raw.trim()
    if (name === '*') return set.properties
    const property = set.propertyByName.get(name)
    if (!property) throw new ODataError('InvalidSelect', `${set.name} has no property ${JSON.stringify(name)}`, { target: '$select' })
    chosen.add(property)
  }
  // Keep the order of the model, whatever order the client wrote.
  return set.properties.filter((p) => chosen.has(p))
}
