// E5 POST /core/MerchantAnalytics/GetConnectorSummaryCountMetrics — counts per connector.
import { connectorMetricsRoute } from '../connector-route.ts';
import { countMetrics } from '../service.ts';

export default connectorMetricsRoute('/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', 'Transactions per connector, by count (E5)', countMetrics);
