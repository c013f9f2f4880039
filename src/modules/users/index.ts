// The users module: a merchant's users, their invitations and the set-password page.
import type { ModuleDefinition } from '../../module.ts';
import userActivate from './routes/activate.ts';
import userAdd from './routes/add.ts';
import userClose from './routes/close.ts';
import userGetAll from './routes/get-all.ts';
import userClaims from './routes/get-merchant-claims.ts';
import userGet from './routes/get.ts';
import userReinvite from './routes/reinvite.ts';
import setPasswordPage from './routes/set-password.ts';
import userUpdate from './routes/update.ts';

export const usersModule: ModuleDefinition = {
  name: 'users',
  routes: [userAdd, userGetAll, userGet, userUpdate, userActivate, userClose, userReinvite, userClaims],
  rootRoutes: [setPasswordPage],
};
