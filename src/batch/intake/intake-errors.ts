// The three errors the intake raises, built in one place so that messages stay consistent.
// Clients and tests tell them apart by `code` (decisions.md §4); the messages are for people.

import { ODataError } from '../../errors.js'

/** 413: the body passed the size limit (service.md §8; decisions.md §7 closes the connection afterwards). */
export function batchTooLarge(maxBytes: number): ODataError {
  return new ODataError('BatchTooLarge', `The batch body is larger than ${maxBytes} bytes, the most allowed.`)
}

/** 400 with the actual figure, as decisions.md §7 words it. */
export function tooManyOperations(actual: number, allowed: number): ODataError {
  return new ODataError('TooManyOperations', `The batch has ${actual} operations; at most ${allowed} are allowed.`)
}

/** 400: the body is corrupt or has no operations (service.md §7). */
export function batchMalformed(message: string): ODataError {
  return new ODataError('BatchMalformed', message)
}
