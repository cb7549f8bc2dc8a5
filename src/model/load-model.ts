// The one entry point from a configuration file to a ServiceModel: parse, validate, build.
import { loadConfigurationFile } from './configuration.js'
import { buildModel } from './build-model.js'
import type { ServiceModel } from './model.js'

export function loadModel(file: string): ServiceModel {
  return buildModel(loadConfigurationFile(file), file)
}
