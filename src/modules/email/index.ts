// The email module: the e-mail outbox (invitations, notices), sent by a worker job per message.
import type { ModuleDefinition } from '../../module.ts';
import { SEND_EMAIL_TASK, sendEmailTask } from './service.ts';

export const emailModule: ModuleDefinition = {
  name: 'email',
  // One message of the outbox; retried up to EMAIL_MAX_ATTEMPTS times (see service.ts).
  tasks: (deps) => ({ [SEND_EMAIL_TASK]: sendEmailTask(deps) }),
};
