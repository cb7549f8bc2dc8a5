// `Prefer: odata.continue-on-error` (4.0) or `continue-on-error` (4.01); `=false` turns it off
// (decisions.md §7: both spellings work, and Preference-Applied echoes the one the client sent).

/** The preference as the client spelled it, or undefined when the batch stops at the first failure. */
export function continueOnErrorPreference(prefer: string | undefined): string | undefined {
  if (!prefer) return undefined
  for (const raw of prefer.split(',')) {
    const preference = raw.trim()
    const [name, value] = preference.split('=', 2).map((s) => s.trim().toLowerCase())
    if ((name === 'odata.continue-on-error' || name === 'continue-on-error') && value !== 'false') return preference
  }
  return undefined
}
