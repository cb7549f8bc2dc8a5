// Profile permissions per entity set (decisions.md §1, §8): 403 when the profile may not read or write
// the target. Table-part and record-type sets are checked under their own names, so a profile can
// open `Document_*` and still keep `Document_GoodsSale_Goods` closed if it lists sets one by one.
import { ODataError } from '../errors.js'
import type { EntitySetModel, SubjectModel } from '../model/model.js'

export function authorizeRead(subject: SubjectModel, set: EntitySetModel): void {
  if (!subject.profile.canRead(set.name))
    throw new ODataError('Forbidden', `The profile ${subject.profile.name} may not read ${set.name}`, { target: set.name })
}

export function authorizeWrite(subject: SubjectModel, set: EntitySetModel): void {
  if (!subject.profile.canWrite(set.name))
    throw new ODataError('Forbidden', `The profile ${subject.profile.name} may not write ${set.name}`, { target: set.name })
}
