// Text placed into XML attribute values or character data (`$metadata`, csdl.ts).

const REPLACEMENTS: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  // A parser turns a literal tab or line break inside an attribute value into a space (attribute-value
  // normalization, XML 1.0 §3.3.3); as character references they survive.
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
}

// Characters XML 1.0 cannot carry at all, not even as character references (§2.2): other C0 controls,
// U+FFFE/U+FFFF, and surrogates without their pair.
const NOT_REPRESENTABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Surrogate}/u

/**
 * Escapes text for an XML attribute value (also safe in character data). Throws on a character XML
 * cannot represent: serving a document no client can parse is worse than refusing to start.
 */
export function escapeXml(text: string): string {
  const bad = NOT_REPRESENTABLE.exec(text)
  if (bad !== null) {
    const codePoint = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')
    throw new Error(`${JSON.stringify(text)} contains U+${codePoint}, which XML 1.0 cannot represent`)
  }
  return text.replace(/[&<>"'\t\n\r]/g, (character) => REPLACEMENTS[character]!)
}
