// DATABASE_URL: one host as before, or the nodes of a cluster, comma-separated, in order of preference.
import t from 'tap'
import { parseDatabaseUrl, redactDatabaseUrl } from '../../src/store/database-url.js'

t.test('one host, as it always was read', async (t) => {
  t.same(parseDatabaseUrl('mysql://root@127.0.0.1:3306/odata_registers'), {
    host: '127.0.0.1',
    port: 3306,
    user: 'root',
    password: '',
    database: 'odata_registers',
  })
  t.same(parseDatabaseUrl('mariadb://u%40x:p%3Aw@db.example/reg'), {
    host: 'db.example',
    port: 3306,
    user: 'u@x',
    password: 'p:w',
    database: 'reg',
  })
  t.same(parseDatabaseUrl('mysql://[::1]:3307/reg?ssl=0'), { host: '::1', port: 3307, user: 'root', password: '', database: 'reg' })
})

t.test('several hosts: the first is preferred, all are kept in order', async (t) => {
  const address = parseDatabaseUrl('mysql://root:secret@h1:3311,h2:3312,[::1]/reg')
  t.equal(address.host, 'h1')
  t.equal(address.port, 3311)
  t.equal(address.password, 'secret')
  t.same(address.hosts, [
    { host: 'h1', port: 3311 },
    { host: 'h2', port: 3312 },
    { host: '::1', port: 3306 },
  ])
})

t.test('what is not a database URL is refused with the form expected', async (t) => {
  t.throws(() => parseDatabaseUrl('postgres://h/reg'), /must start with mysql:\/\//)
  t.throws(() => parseDatabaseUrl('127.0.0.1:3306/reg'), /not a URL/)
  t.throws(() => parseDatabaseUrl('mysql://h1:3311,h2:99999/reg'), /port out of range/)
  t.throws(() => parseDatabaseUrl('mysql://h1:33a1/reg'), /host:port/)
  t.throws(() => parseDatabaseUrl('mysql://h1:3311,h1:3311/reg'), /twice/)
  t.throws(() => parseDatabaseUrl('mysql://h1:3311,h2/'), /must name a database/)
})

t.test('a printed URL never shows the password', async (t) => {
  t.equal(redactDatabaseUrl('mysql://app:S3cretPw@db:3306/x'), 'mysql://app:***@db:3306/x')
  t.equal(redactDatabaseUrl('mysql://app:p%40ss@w@h1:1,h2:2/x?ssl=1'), 'mysql://app:***@h1:1,h2:2/x?ssl=1')
  t.equal(redactDatabaseUrl('mysql://root@127.0.0.1:3306/x'), 'mysql://root@127.0.0.1:3306/x', 'no password: unchanged')
  t.equal(redactDatabaseUrl('mysql://[::1]:3307,h:2/x'), 'mysql://[::1]:3307,h:2/x', 'hosts and ports are kept')
  t.equal(redactDatabaseUrl('mysql://app:S3cretPw/x'), 'mysql://app:***/x', 'a password where the port goes')
  t.throws(() => parseDatabaseUrl('mysql://app:S3cretPw/x'))
  try {
    parseDatabaseUrl('mysql://app:S3cretPw/x')
  } catch (error) {
    t.notMatch((error as Error).message, /S3cretPw/, 'nor does an error about it')
  }
})
