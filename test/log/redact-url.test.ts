// decisions.md §8: what the request log keeps of a URL. Credentials are masked by what authenticates,
// whatever their spelling; everything else is kept as received.
import t from 'tap'
import { redactUrl } from '../../src/log/redact-url.js'

const TOKENS = ['demo-token', 'reader-token']

t.test('the token parameter, its name in any spelling', async (t) => {
  t.equal(redactUrl('/api/v4/Catalog_Products?token=abc&$top=1'), '/api/v4/Catalog_Products?token=***&$top=1')
  t.equal(redactUrl('/api/v4/Catalog_Products?$top=1&%74oken=abc'), '/api/v4/Catalog_Products?$top=1&%74oken=***')
  t.equal(redactUrl('/api/v4/Catalog_Products?%54%4F%4B%45%4E=abc'), '/api/v4/Catalog_Products?%54%4F%4B%45%4E=***')
  t.equal(redactUrl('/api/v4/Catalog_Products?token'), '/api/v4/Catalog_Products?token=***')
  t.equal(redactUrl('/api/v4/Catalog_Products?tokens=1&mytoken=2'), '/api/v4/Catalog_Products?tokens=1&mytoken=2', 'other names are kept')
})

t.test('the segment after every t segment, however its slashes are written', async (t) => {
  t.equal(redactUrl('/api/t/abc/v4/$batch'), '/api/t/***/v4/$batch')
  t.equal(redactUrl('/api/t/abc/v4/t/def/x'), '/api/t/***/v4/t/***/x', 'a second one')
  t.equal(redactUrl('/api/t/x/../t/abc/v4/'), '/api/t/***/../t/***/v4/')
  t.equal(redactUrl('/api%2Ft%2Fabc%2Fv4/'), '/api%2Ft%2F***%2Fv4/')
  t.equal(redactUrl('/api/%74/abc/v4/'), '/api/%74/***/v4/')
  t.equal(redactUrl('/api\\t\\abc\\v4/'), '/api\\t\\***\\v4/')
  t.equal(redactUrl('/api/tt/abc/v4/Catalog_Products(1)'), '/api/tt/abc/v4/Catalog_Products(1)', 'other segments are kept')
})

t.test('userinfo of absolute and scheme-relative URLs', async (t) => {
  t.equal(redactUrl('http://user:pass@host:8080/api/v4/X'), 'http://***@host:8080/api/v4/X')
  t.equal(redactUrl('//user:p%40ss@host/api/v4/X'), '//***@host/api/v4/X')
  t.equal(redactUrl('https://a@b@host/api/v4/X?q=1'), 'https://***@host/api/v4/X?q=1')
  t.equal(redactUrl('http://host/api/v4/X?mail=a@b'), 'http://host/api/v4/X?mail=a@b', 'an @ after the authority is kept')
})

t.test('userinfo whatever the shape of the URL around it', async (t) => {
  t.equal(redactUrl(' http://u:PW@host/api/v4/X'), ' http://***@host/api/v4/X', 'leading space')
  t.equal(redactUrl('\thttp://u:PW@host/api/v4/X'), '\thttp://***@host/api/v4/X', 'leading tab')
  t.equal(redactUrl('\u00a0http://u:PW@host/api/v4/X'), '\u00a0http://***@host/api/v4/X', 'leading no-break space')
  t.equal(redactUrl('\ufeffhttp://u:PW@host/api/v4/X'), '\ufeffhttp://***@host/api/v4/X', 'leading byte-order mark')
  t.equal(redactUrl('http:\\\\u:PW@host/api/v4/X'), 'http:\\\\***@host/api/v4/X', 'backslashes')
  t.equal(redactUrl('http:/\\u:PW@host/api/v4/X'), 'http:/\\***@host/api/v4/X', 'mixed slashes')
  t.equal(redactUrl('http:u:PW@host/api/v4/X'), 'http:***@host/api/v4/X', 'no slashes')
  t.equal(redactUrl('HTTP:%2F%2Fu:PW@host/api/v4/X'), 'HTTP:%2F%2F***@host/api/v4/X', 'percent-encoded slashes')
  t.equal(redactUrl('/x?next=//u:PW@host/'), '/x?next=//***@host/', 'two slashes anywhere')
  t.equal(redactUrl("Catalog_X?$filter=Description eq 'a@b'"), "Catalog_X?$filter=Description eq 'a@b'", 'an @ in a relative URL is kept')
})

t.test('configured tokens anywhere, literal or percent-encoded', async (t) => {
  t.equal(redactUrl("/api/v4/X?$filter=Code eq 'demo-token'", TOKENS), "/api/v4/X?$filter=Code eq '***'")
  t.equal(redactUrl('/api/v4/X%3Ftoken%3D%64emo%2dtoken', TOKENS), '/api/v4/X%3Ftoken%3D***')
  t.equal(redactUrl('/api/v4/X(%27reader-token%27)', TOKENS), '/api/v4/X(%27***%27)')
  t.equal(redactUrl('/api/v4/X?$top=1', TOKENS), '/api/v4/X?$top=1')
  t.equal(redactUrl("/api/v4/X?$filter=Code eq 'DEMO-Token'", TOKENS), "/api/v4/X?$filter=Code eq '***'", 'in any case')
})

t.test('tokens that contain one another are masked whole, in one pass over the URL', async (t) => {
  // Listed shortest first: the longer one still wins where both match.
  const nested = ['abc', 'abc-long', 'xabc-long-y', '']
  t.equal(redactUrl('/x/abc-long/xabc-long-y/abc/ab', nested), '/x/***/***/***/ab')
  t.equal(redactUrl('/x/%61bc-lon%67', nested), '/x/***')
  t.equal(redactUrl('/x/abc', ['', '']), '/x/abc', 'empty tokens mask nothing')
})
