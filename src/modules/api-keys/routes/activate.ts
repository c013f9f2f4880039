// PUT /security/apiKeys/activate — the key works again (new tokens, and its unexpired ones).
import { statusRoute } from '../status-route.ts';

export default statusRoute('activate', 'A', 'ok.apiKeyActivated', 'Activate an API key');
