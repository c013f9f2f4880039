// SQL for the connector catalogue (seeded by migration; product.md §7).
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { t, type Lang } from '../../http/i18n.ts';

export interface ConnectorRow {
  connector_id: number;
  connector_code: string;
  connector_name: string;
  channel_code: 'M' | 'B';
  is_active: boolean;
  is_disbursement_allowed: boolean;
  is_collection_allowed: boolean;
  /** The institution's canonical connector, for the ids the gateway's documentation uses (550044 …); null for a canonical row. */
  alias_of: number | null;
  switch_merchant_id: string;
  /** A PNG (checked by the database: signature and size). */
  logo: Buffer;
  logo_format: string;
}

/**
 * The catalogue: wallets first, by name, an institution's aliases right after it. `summary`: the
 * active canonical rows only (one per institution, as a picker shows them).
 */
export async function listConnectors(q: Queryable, options: { activeInstitutionsOnly?: boolean } = {}): Promise<ConnectorRow[]> {
  const { rows } = await q.query<ConnectorRow>(
    `select * from connectors ${options.activeInstitutionsOnly ? 'where is_active and alias_of is null' : ''}
      order by channel_code desc, connector_name, alias_of nulls first, connector_id`,
  );
  return rows;
}

export async function findConnector(q: Queryable, connectorId: number): Promise<ConnectorRow | undefined> {
  const { rows } = await q.query<ConnectorRow>('select * from connectors where connector_id = $1', [connectorId]);
  return rows[0];
}

export const CHANNEL_NAMES = { B: 'Bank', M: 'Mobile Network Operator' } as const;

/** "The bank supports the processing of disbursement and collection transactions", from the row's own flags. */
export function connectorDescription(lang: Lang, c: ConnectorRow): string {
  const what = c.is_disbursement_allowed ? (c.is_collection_allowed ? 'both' : 'disbursement') : c.is_collection_allowed ? 'collection' : 'none';
  return t(lang, `connectorDescription.${what}`, { kind: t(lang, `connectorKind.${c.channel_code}`) });
}

/** E9's five fields (interface.md), then the documented record's description, switch id and logo. */
export function connectorSummary(lang: Lang, c: ConnectorRow) {
  return {
    connectorName: c.connector_name,
    connectorId: c.connector_id,
    isActive: c.is_active,
    channelCode: c.channel_code,
    connectorCode: c.connector_code,
    connectorDescription: connectorDescription(lang, c),
    switchMerchantId: c.switch_merchant_id,
    logoBase64: c.logo.toString('base64'),
    logoFormat: c.logo_format,
  };
}

export function connectorDetail(lang: Lang, c: ConnectorRow) {
  return {
    ...connectorSummary(lang, c),
    channelName: CHANNEL_NAMES[c.channel_code],
    isDisbursementAllowed: c.is_disbursement_allowed,
    isCollectionAllowed: c.is_collection_allowed,
    aliasOf: c.alias_of,
  };
}

/** The connector if it exists and is active: 404 E903 when unknown, 402 E913 when inactive. */
export async function activeConnector(q: Queryable, connectorId: number): Promise<ConnectorRow> {
  const connector = await findConnector(q, connectorId);
  if (!connector) throw new AppError('notFound', 'detail.connectorNotFound', { connectorId });
  if (!connector.is_active) throw new AppError('connectorInactive', 'detail.connectorInactive', { connectorId });
  return connector;
}
