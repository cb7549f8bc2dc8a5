// `odata-registers check-config`: the configuration file and the environment checked as `serve` checks
// them, without the database: for a deployment's pipeline, before anything starts.
import { CorsPolicy } from '../http/cors.js'
import { loadModel } from '../model/load-model.js'
import { readEnvironment } from '../ops/environment.js'
import { commandOptions } from './command-options.js'

export async function checkConfigCommand(args: readonly string[]): Promise<number> {
  commandOptions('check-config', args)
  const environment = readEnvironment(process.env)
  const model = loadModel(environment.configFile)
  // The allowed origins are checked as the server will read them.
  new CorsPolicy(model.configuration.cors, environment.corsOrigins)
  console.log(`${environment.configFile}: valid (${model.entitySets.length} entity sets); environment valid`)
  return 0
}
