// `SliceLast` of a periodic information register: per dimension combination, the record with the
// greatest `Period ≤ Period` (decisions.md §6); see slice.ts.
import { sliceTable } from './slice.js'

export const sliceLast = sliceTable('SliceLast')
