// SQL for the connector catalogue (seeded by migration; product.md §7).
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';

export interface ConnectorRow {
  connector_id: number;
  connector_code: string;
  connector_name: string;
  channel_code: 'M' | 'B';
  is_active: boolean;
  is_disbursement_allowed: boolean;
  is_collection_allowed: boolean;
}

export async function listConnectors(q: Queryable, onlyActive = false): Promise<ConnectorRow[]> {
  const { rows } = await q.query<ConnectorRow>(`select * from connectors ${onlyActive ? 'where is_active' : ''} order by channel_code desc, connector_name`);
  return rows;
}

export async function findConnector(q: Queryable, connectorId: number): Promise<ConnectorRow | undefined> {
  const { rows } = await q.query<ConnectorRow>('select * from connectors where connector_id = $1', [connectorId]);
  return rows[0];
}

export const CHANNEL_NAMES = { B: 'Bank', M: 'Mobile Network Operator' } as const;

export function connectorSummary(c: ConnectorRow) {
  return { connectorName: c.connector_name, connectorId: c.connector_id, isActive: c.is_active, channelCode: c.channel_code, connectorCode: c.connector_code };
}

export function connectorDetail(c: ConnectorRow) {
  return {
    ...connectorSummary(c),
    channelName: CHANNEL_NAMES[c.channel_code],
    isDisbursementAllowed: c.is_disbursement_allowed,
    isCollectionAllowed: c.is_collection_allowed,
  };
}

/** The connector if it exists and is active: 404 E903 when unknown, 402 E913 when inactive. */
export async function activeConnector(q: Queryable, connectorId: number): Promise<ConnectorRow> {
  const connector = await findConnector(q, connectorId);
  if (!connector) throw new AppError('notFound', 'detail.connectorNotFound', { connectorId });
  if (!connector.is_active) throw new AppError('connectorInactive', 'detail.connectorInactive', { connectorId });
  return connector;
}
