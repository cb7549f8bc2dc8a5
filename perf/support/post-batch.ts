// One `$batch` request as the batch benchmarks send it: POSTed to the service root of a server on this
// machine as the `bench` subject (no rate rules), the whole answer read. Each benchmark checks the answer
// its own way (counting the 201s, parsing it as a client must, looking for refusals).
import type http from 'node:http'
import { request } from 'node:http'

export interface BatchResponse {
  readonly statusCode: number | undefined
  readonly contentType: string
  readonly body: Buffer
}

/** `agent`: a keep-alive agent shared by a client's requests, or `false` for a connection of their own. */
export function postBatch(port: number, body: Buffer, contentType: string, agent: http.Agent | false): Promise<BatchResponse> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v4/$batch',
        agent,
        headers: { Authorization: 'Bearer bench-token', 'Content-Type': contentType, 'Content-Length': body.length },
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () =>
          resolve({ statusCode: response.statusCode, contentType: response.headers['content-type'] ?? '', body: Buffer.concat(chunks) }),
        )
        response.on('error', reject)
      },
    )
    sent.on('error', reject)
    sent.end(body)
  })
}
