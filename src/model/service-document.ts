// The service document (`GET <service root>`): the list of entity sets, in the OData 4.01 JSON format
// (OData JSON Format §5). Built once per service root and cached by the caller.
import type { ServiceModel } from './model.js'

/**
 * `{"@odata.context":"<service root>$metadata","value":[{"name","kind":"EntitySet","url"}…]}`.
 *
 * `serviceRoot` is the absolute URL of the service root the request came to
 * (`https://host/odata/standard.odata/v4/`; the token-path flavour has its own roots); a missing final
 * `/` is added. The context URL is `<serviceRoot>$metadata`.
 *
 * Every entity set of the model is listed, in model order, with a `url` relative to the service root
 * that is simply its name. Names are written as they are, Cyrillic included (`Catalog_Организации`):
 * JSON carries them unencoded (demo-configuration.md), and a client resolving the relative URL
 * percent-encodes it as it does any IRI.
 */
export function buildServiceDocument(model: ServiceModel, serviceRoot: string): string {
  const root = serviceRoot.endsWith('/') ? serviceRoot : `${serviceRoot}/`
  return JSON.stringify({
    '@odata.context': `${root}$metadata`,
    value: model.entitySets.map((set) => ({ name: set.name, kind: 'EntitySet', url: set.name })),
  })
}
