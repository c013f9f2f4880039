// PUT /security/apiKeys/deactivate — the key stops working; its tokens fail within seconds.
import { statusRoute } from '../status-route.ts';

export default statusRoute('deactivate', 'I', 'ok.apiKeyDeactivated', 'Deactivate an API key');
