// The corpus's batch bodies as the intake reads them: the standard's examples (whole HTTP messages) and
// Olingo's vectors (bodies only), with their boundaries.
import { readdirSync } from 'node:fs'
import type { MultipartSample } from '../batch/intake/intake-harness.js'
import { corpusFile, corpusPath } from './corpus-folder.js'

/**
 * A multipart request from the corpus. The standard's examples are whole HTTP messages: the boundary
 * is in their Content-Type and the body follows the blank line. Olingo's files are bodies only: the
 * boundary is the first line without its `--` (INDEX.md).
 */
export function multipartSample(relativePath: string): MultipartSample {
  const bytes = corpusFile(relativePath)
  const text = bytes.toString('latin1')
  if (/^[A-Z]+ \S+ HTTP\/1\.1\r?\n/.test(text)) {
    const headEnd = text.indexOf('\r\n\r\n')
    const boundary = /boundary=([^\r\n;]+)/i.exec(text.slice(0, headEnd))?.[1]
    if (boundary === undefined) throw new Error(`${relativePath}: no boundary in the HTTP head`)
    return { name: relativePath, body: bytes.subarray(headEnd + 4), boundary }
  }
  const firstLine = /^--([^\r\n]+)\r?\n/.exec(text)
  if (firstLine === null) throw new Error(`${relativePath}: does not open with a delimiter`)
  return { name: relativePath, body: bytes, boundary: firstLine[1] }
}

/**
 * The standard's Example 101 writes its first request line, `GET /service/Customers('ALFKI')`, without
 * the HTTP version that service.md §2.3 requires: the intake refuses the file as it is.
 */
export const EXAMPLE_101 = 'batch-spec/batch-multipart-request-1.txt'
export const EXAMPLE_101_REFUSAL =
  'Part 1: the request line "GET /service/Customers(\'ALFKI\')" has no HTTP version ("<METHOD> <url> HTTP/1.1").'

/** The sample with ` HTTP/1.1` after every request line that has no version: what the rest of the file shows stays testable. */
export function withHttpVersions(sample: MultipartSample): MultipartSample {
  const text = sample.body.toString('latin1').replace(/^([A-Z]+ [^ \r\n]+)(\r?\n)/gm, '$1 HTTP/1.1$2')
  return { name: `${sample.name} with its HTTP versions`, body: Buffer.from(text, 'latin1'), boundary: sample.boundary }
}

/** The multipart request files of the corpus: the standard's examples and Olingo's request vectors (not its responses). */
export function multipartRequestFiles(): string[] {
  const files = ['batch-spec/batch-multipart-request-1.txt', 'batch-spec/batch-multipart-request-2.txt']
  for (const folder of ['batch-peers/olingo-odata4', 'batch-peers/olingo-odata2']) {
    const directory = corpusPath(folder)
    for (const name of readdirSync(directory).sort()) {
      if (name.endsWith('.batch') && !/response/i.test(name)) files.push(`${folder}/${name}`)
    }
  }
  return files
}

/**
 * Every multipart body the corpus tests read: the request files; Olingo's two response files with the
 * status line made a request line (they test body framing); the standard's request-line fragments
 * wrapped in a batch.
 */
export function corpusMultipartSamples(): MultipartSample[] {
  const samples: MultipartSample[] = []
  for (const file of multipartRequestFiles()) samples.push(multipartSample(file))
  for (const file of [
    'batch-peers/olingo-odata2/BatchResponseWithAdditionalLineEnding.batch',
    'batch-peers/olingo-odata2/BatchResponseWithLinesInBodyWin.batch',
  ]) {
    const sample = multipartSample(file)
    const asRequest = Buffer.from(
      sample.body.toString('latin1').replace('HTTP/1.1 500 Internal Server Error', 'POST Errors HTTP/1.1'),
      'latin1',
    )
    samples.push({ name: `${file} as a request`, body: asRequest, boundary: sample.boundary })
  }
  for (const file of [
    'batch-spec/batch-multipart-fragment-1-url-absolute.txt',
    'batch-spec/batch-multipart-fragment-2-url-absolute-path-host.txt',
  ]) {
    samples.push({ name: `${file} in a batch`, body: fragmentInBatch(file), boundary: 'b' })
  }
  return samples
}

/** A request-line fragment of the standard as the one part of a batch of boundary `b`. */
export function fragmentInBatch(file: string): Buffer {
  // The corpus README: "append an empty line to make a complete application/http request".
  return Buffer.concat([
    Buffer.from('--b\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n'),
    corpusFile(file),
    Buffer.from('\r\n\r\n--b--\r\n'),
  ])
}
