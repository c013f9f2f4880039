// POST /admin/v1/merchants/accounts/suspend — the documented body, for the operator (see merchant-status-route.ts).
import { merchantStatusRoute } from '../merchant-status-route.ts';

export default merchantStatusRoute('suspend');
