// `odata-registers check-config`: the configuration file and the environment checked as `serve` checks
// them, without the database: for a deployment's pipeline, before anything starts.
import { CorsPolicy } from '../http/cors.js'
import { loadModel } from '../model/load-model.js'
import { readEnvironment } from '../ops/environment.js'
import type { Command } from './command.js'
import { commandOptions } from './command-options.js'

export const checkConfigCommand: Command = {
  summary: 'check the configuration file and the environment, without the database',
  usage: `odata-registers check-config
  Checks the configuration file (CONFIG, else the package's config/demo.json) against its schema and its
  cross-references, and every environment variable (docs/settings.md); names every problem and exits 1,
  or prints one line and exits 0. Connects to nothing.`,
  async run(args) {
    commandOptions('check-config', args)
    const environment = readEnvironment(process.env)
    const model = loadModel(environment.configFile)
    // The allowed origins are checked as the server will read them.
    new CorsPolicy(model.configuration.cors, environment.corsOrigins)
    console.log(`${environment.configFile}: valid (${model.entitySets.length} entity sets); environment valid`)
    return 0
  },
}
