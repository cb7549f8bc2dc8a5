// The id a batch's log entries share (column `Пакет` of `request_log`, decisions.md §8): a UUID, as the
// specification says, of version 7 (RFC 9562 §5.7), whose leading 48 bits are the time in milliseconds.
// Why not a random one (version 4): the column is indexed (by_batch, for the administration page and for
// the look-up after a lost connection), and random keys land anywhere in that index. Once the log outgrows
// the buffer pool, each batch then reads a page of the index from disk to add its entries; ids in time
// order are added at the index's end, where its pages already are in memory. The text form of a version-7
// UUID sorts as its time does.
import { v7 } from 'uuid'

export function newBatchId(): string {
  return v7()
}
