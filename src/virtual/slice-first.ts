// `SliceFirst` of a periodic information register: per dimension combination, the record with the least
// `Period ≥ Period` (decisions.md §6); see slice.ts.
import { sliceTable } from './slice.js'

export const sliceFirst = sliceTable('SliceFirst')
