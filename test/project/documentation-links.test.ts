// Every path README.md and docs/ cite exists in the repository: the targets of relative Markdown links
// (from the citing file's folder), and every repository path written as code (`src/…`, `docs/…`,
// `deploy/…`, in the text and in code blocks; from the repository's root). README.md cites Markdown files
// by their path, never by a bare name a reader of a clone cannot find. Paths with placeholders or globs
// (`test/**/*.test.ts`, `<service root>`) and generated outputs are not files to check.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'

const TOP_LEVEL = ['src', 'test', 'docs', 'config', 'perf', 'scripts', 'protocol', 'deploy', '.ci']
const ROOT_FILES = ['Makefile', 'package.json', 'package-lock.json', 'pipeline-order.config.mjs', 'biome.jsonc', 'tsconfig.json']
/** Written by commands, absent from a clone: a citation of them is not a broken one. */
const GENERATED = ['perf/results/']
const REPOSITORY_PATH = new RegExp(
  `(?<![\\w./-])((?:${TOP_LEVEL.map((folder) => folder.replace('.', '\\.')).join('|')})/[\\w./\\-À-ӿ]*)`,
  'g',
)

function markdownFiles(folder: string): string[] {
  return readdirSync(folder)
    .flatMap((name) => {
      const file = path.join(folder, name)
      return statSync(file).isDirectory() ? markdownFiles(file) : name.endsWith('.md') ? [file] : []
    })
    .sort()
}

/** The problems of one Markdown text: each a line naming what it cites and why that fails. */
function brokenCitations(file: string, text: string, exists: (repositoryPath: string) => boolean = existsSync): string[] {
  const problems: string[] = []
  const fenced = [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((match) => match[1]!)
  const prose = text.replace(/```[^\n]*\n[\s\S]*?```/g, '')

  for (const [, target] of prose.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z+.-]*:/i.test(target!) || target!.startsWith('#')) continue
    const resolved = path.normalize(path.join(path.dirname(file), target!.split('#')[0]!))
    if (!exists(resolved)) problems.push(`${file}: the link (${target}) leads to nothing (${resolved})`)
  }

  const cited = new Set<string>()
  for (const [, code] of prose.matchAll(/`([^`\n]+)`/g)) {
    const text = code!.trim()
    if (ROOT_FILES.includes(text)) cited.add(text)
    else if (TOP_LEVEL.some((folder) => text.startsWith(`${folder}/`)) && !/\s/.test(text)) cited.add(text)
    else if (file === 'README.md' && /^[\w.-]+\.md$/.test(text)) problems.push(`${file}: cites ${text} without its path`)
  }
  for (const block of fenced) for (const [, found] of block.matchAll(REPOSITORY_PATH)) cited.add(found!)

  for (const citation of cited) {
    if (/[*<>…{}$]/.test(citation)) continue
    const repositoryPath = citation.replace(/[#:].*$/, '').replace(/[.,;)]+$/, '')
    if (GENERATED.some((prefix) => repositoryPath.startsWith(prefix))) continue
    if (!exists(repositoryPath)) problems.push(`${file}: cites ${repositoryPath}, which is not in the repository`)
  }
  return problems
}

t.test('every link and every cited path of README.md and docs/ exists', async (t) => {
  const files = ['README.md', ...markdownFiles('docs')]
  t.ok(files.length > 5, `${files.length} files read`)
  const problems = files.flatMap((file) => brokenCitations(file, readFileSync(file, 'utf8')))
  t.same(problems, [])
})

t.test('the check finds what is broken', async (t) => {
  const text = [
    '# A page',
    'See [the guide](guide.md), [errors](docs/errors.md) and `src/nothing-here.ts`; `docs/errors.md` is fine.',
    'In the README `decisions.md` alone is no path; `perf/results/latest.json` is written by a command.',
    '```sh',
    'odata-registers load --mapping docs/examples/missing.json',
    '```',
  ].join('\n')
  t.same(brokenCitations('README.md', text), [
    'README.md: the link (guide.md) leads to nothing (guide.md)',
    'README.md: cites decisions.md without its path',
    'README.md: cites src/nothing-here.ts, which is not in the repository',
    'README.md: cites docs/examples/missing.json, which is not in the repository',
  ])
  t.same(brokenCitations('docs/page.md', 'A [link](errors.md) and `decisions.md`.'), [], 'in docs/ a link is relative to docs/')
})
