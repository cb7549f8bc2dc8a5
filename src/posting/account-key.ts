// The derived keys of predefined accounts live with the model (src/model/account-key.ts), where the
// virtual tables read them too; posting and the seed import them from here as before.
export { accountRefKey } from '../model/account-key.js'
