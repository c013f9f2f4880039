// POST /core/MerchantAnalytics/GetConnectorSummarySumMetrics — E5 with amounts instead of counts.
import { connectorMetricsRoute } from '../connector-route.ts';
import { sumMetrics } from '../service.ts';

export default connectorMetricsRoute('/core/MerchantAnalytics/GetConnectorSummarySumMetrics', 'Transactions per connector, by amount', sumMetrics);
