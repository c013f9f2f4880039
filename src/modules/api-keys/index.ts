// The api-keys module: a merchant's key pairs (generate, list, add, activate, deactivate, delete).
import type { ModuleDefinition } from '../../module.ts';
import activateKey from './routes/activate.ts';
import addKey from './routes/add.ts';
import deactivateKey from './routes/deactivate.ts';
import deleteKey from './routes/delete.ts';
import generateKey from './routes/generate.ts';
import getAllKeys from './routes/get-all.ts';
import getKey from './routes/get.ts';

export const apiKeysModule: ModuleDefinition = {
  name: 'api-keys',
  routes: [generateKey, getAllKeys, addKey, getKey, activateKey, deactivateKey, deleteKey],
};
