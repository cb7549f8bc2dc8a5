// The body builder used by tests and benchmarks writes what clients write.

import t from 'tap'
import { buildJsonBatch, buildMultipartBatch } from '../../../src/tools/shared/batch-body.js'

t.test('buildMultipartBatch writes the standard layout (service.md §2.3)', async (t) => {
  const built = buildMultipartBatch(
    [
      { method: 'GET', url: 'People' },
      { method: 'POST', url: 'People', body: { Name: 'Ann' }, id: '1', atomicityGroup: 'g' },
    ],
    { boundary: 'batch_t' },
  )
  t.equal(built.contentType, 'multipart/mixed; boundary=batch_t')
  t.equal(
    built.body.toString(),
    [
      '--batch_t',
      'Content-Type: application/http',
      'Content-Transfer-Encoding: binary',
      '',
      'GET People HTTP/1.1',
      '',
      '',
      '--batch_t',
      'Content-Type: multipart/mixed; boundary=changeset_1_batch_t',
      '',
      '--changeset_1_batch_t',
      'Content-Type: application/http',
      'Content-Transfer-Encoding: binary',
      'Content-ID: 1',
      '',
      'POST People HTTP/1.1',
      'Content-Type: application/json',
      '',
      '{"Name":"Ann"}',
      '--changeset_1_batch_t--',
      '--batch_t--',
      '',
    ].join('\r\n'),
  )
  t.throws(() => buildMultipartBatch([{ method: 'GET', url: 'People?$filter=A eq 1' }]), /percent-encode/)
})

t.test('buildJsonBatch writes the JSON Format §19.1 layout', async (t) => {
  const built = buildJsonBatch([
    { method: 'get', url: 'People' },
    {
      method: 'post',
      url: 'People',
      body: { Name: 'Ann' },
      id: 'a',
      atomicityGroup: 'g',
      dependsOn: ['r1'],
      headers: { 'content-type': 'application/json' },
    },
  ])
  t.equal(built.contentType, 'application/json')
  t.same(JSON.parse(built.body.toString()), {
    requests: [
      { id: 'r1', method: 'get', url: 'People' },
      {
        id: 'a',
        atomicityGroup: 'g',
        dependsOn: ['r1'],
        method: 'post',
        url: 'People',
        headers: { 'content-type': 'application/json' },
        body: { Name: 'Ann' },
      },
    ],
  })
})
