-- Fidelity to the gateway's documentation (issue 14): the connector ids its examples use, the
-- documented connector fields, and merchant account status changes (suspend, blacklist, activate)
-- with their history.

-- ---------------------------------------------------------------------------------------------
-- Connectors. The docs' examples name 550044 (National Bank of Malawi), 666473 and 769356 (FDH
-- Bank) and 769375 (Airtel Money); clients copy them. Each is a row of its own, so every foreign
-- key, join and set-based lookup that already resolves a connector id (collections, settlement
-- accounts, batch validation, payouts) takes them unchanged, and a transaction keeps the id its
-- client sent. `alias_of` names the institution's canonical row: analytics fold an alias into its
-- institution's line, and E9's summary lists each institution once.
alter table connectors add column alias_of integer references connectors (connector_id);
alter table connectors add constraint connectors_alias_not_self check (alias_of is null or alias_of <> connector_id);
-- An alias shares its institution's code (the docs show connectorCode "FDH" for 666473 and for
-- 769356): codes are unique among canonical rows only.
alter table connectors drop constraint connectors_connector_code_key;
create unique index connectors_code_canonical on connectors (connector_code) where alias_of is null;

-- One level only: an alias names a canonical row, and a row that others name stays canonical.
create function connectors_alias_canonical() returns trigger language plpgsql as $$
begin
  if new.alias_of is not null and exists (select 1 from connectors where connector_id = new.alias_of and alias_of is not null) then
    raise exception 'connector % cannot be an alias of % (itself an alias)', new.connector_id, new.alias_of using errcode = '23514';
  end if;
  if new.alias_of is not null and exists (select 1 from connectors where alias_of = new.connector_id) then
    raise exception 'connector % has aliases and cannot become one', new.connector_id using errcode = '23514';
  end if;
  return new;
end $$;
create trigger connectors_alias_canonical before insert or update of alias_of on connectors
  for each row execute function connectors_alias_canonical();

-- The id of the gateway's merchant at the national switch for this connector (sandbox values).
alter table connectors add column switch_merchant_id varchar(20);
-- The logo: a real image, at most 64 KiB, checked to start with the PNG signature.
alter table connectors add column logo bytea;
alter table connectors add column logo_format varchar(20) not null default 'image/png' check (logo_format = 'image/png');
alter table connectors add constraint connectors_logo_png
  check (logo is null or (octet_length(logo) between 45 and 65536 and substring(logo from 1 for 8) = '\x89504e470d0a1a0a'::bytea));

-- 16×16 solid-colour PNGs in each institution's colour (generated with zlib and CRC-32).
update connectors c set logo = decode(v.logo, 'base64'), switch_merchant_id = v.switch_merchant_id
  from (values
    ('AIRTEL', '5553', 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR42mN4wsBAEmIY1TCqYfhqAAAbkuQBTLghjQAAAABJRU5ErkJggg=='),
    ('MPAMBA', '6601', 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFUlEQVR42mNgWOhNGhrVMKph+GoAAC037AGkgsaKAAAAAElFTkSuQmCC'),
    ('NBM', 'NBMMW2188', 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFUlEQVR42mNgsF1KGhrVMKph+GoAAIJH4gEYPCNkAAAAAElFTkSuQmCC'),
    ('STDB', 'SBMMW1300', 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFUlEQVR42mNgMF5IGhrVMKph+GoAABUM1AH2usemAAAAAElFTkSuQmCC'),
    ('FDH', 'FDHMW2232', 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR42mP4uoKBJMQwqmFUw/DVAACFJ50QyFLr/gAAAABJRU5ErkJggg=='),
    ('NBS', 'NBSMW1700', 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR42mOQtu8mCTGMahjVMHw1AABPkuUB5kt+JwAAAABJRU5ErkJggg=='),
    ('FCB', 'FCBMW1800', 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFUlEQVR42mNgiF1FGhrVMKph+GoAACieBxB6YdRlAAAAAElFTkSuQmCC'),
    ('ECO', 'ECOMW1900', 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFUlEQVR42mNgyJhLGhrVMKph+GoAACVxBRCgbEI+AAAAAElFTkSuQmCC'),
    ('CDH', 'CDHMW2000', 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR42mOokrclCTGMahjVMHw1AAADSNYBrLp0PAAAAABJRU5ErkJggg=='),
    ('CENTEN', 'CENMW2100', 'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR42mOI1mkmCTGMahjVMHw1AABC6QoQH0N8pQAAAABJRU5ErkJggg==')
  ) as v (connector_code, switch_merchant_id, logo)
 where c.connector_code = v.connector_code and c.alias_of is null;

-- The aliases copy their institution's name, channel, code, flags and logo.
insert into connectors (connector_id, connector_code, connector_name, channel_code, is_active, is_disbursement_allowed, is_collection_allowed, alias_of, switch_merchant_id, logo)
select v.connector_id, c.connector_code, c.connector_name, c.channel_code, c.is_active, c.is_disbursement_allowed, c.is_collection_allowed, c.connector_id, v.switch_merchant_id, c.logo
  from (values (550044, 212188, 'NBMMW0044'), (666473, 221500, 'FDHMW2234'), (769356, 221500, 'FDHMW2233'), (769375, 112400, '5554'))
       as v (connector_id, canonical_id, switch_merchant_id)
  join connectors c on c.connector_id = v.canonical_id;

-- Every row has both (the API answers them as documented); rows an operator adds later must too.
alter table connectors alter column switch_merchant_id set not null;
alter table connectors alter column logo set not null;

-- ---------------------------------------------------------------------------------------------
-- Merchant account statuses: S suspended and B blacklisted join A active (I inactive and C closed
-- stay for compatibility). Only A may authenticate or move money.
alter table merchants drop constraint merchants_status_code_check;
alter table merchants add constraint merchants_status_code_check check (status_code in ('A', 'I', 'C', 'S', 'B'));
alter table merchants add column modified_by varchar(120), add column date_modified timestamptz;

-- The reasons a status change may give (the docs' reasonId: "the reason category").
create table merchant_status_reasons (
  reason_id smallint primary key check (reason_id > 0),
  reason_description varchar(100) not null unique
);
insert into merchant_status_reasons values
  (1, 'Compliance Review Complete'),
  (2, 'Pending Documentation'),
  (3, 'Fraudulent Activity'),
  (4, 'New Merchant Activation'),
  (5, 'Requested By The Merchant'),
  (6, 'Regulatory Directive'),
  (7, 'Dormant Account'),
  (8, 'Other');

-- Every status a merchant account was given: who, why, when. Written in the transaction that
-- changes the status; never changed afterwards.
create table merchant_status_changes (
  change_id bigint generated always as identity,
  merchant_account_number integer not null references merchants,
  -- null for the status the account was created with.
  previous_status_code char(1) check (previous_status_code in ('A', 'I', 'C', 'S', 'B')),
  status_code char(1) not null check (status_code in ('A', 'I', 'C', 'S', 'B')),
  reason_id smallint not null references merchant_status_reasons,
  comments varchar(500),
  changed_by varchar(120) not null,
  -- operator: through the operator API or CLI; system: created so (this migration's back-fill).
  changed_via varchar(10) not null check (changed_via in ('operator', 'system')),
  date_created timestamptz not null default now(),
  primary key (merchant_account_number, change_id),
  check (previous_status_code is distinct from status_code)
);

create function merchant_status_changes_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'merchant status changes are immutable' using errcode = 'P0001';
end $$;
create trigger merchant_status_changes_no_update before update or delete on merchant_status_changes
  for each row execute function merchant_status_changes_immutable();

-- Existing accounts: the status they have, from the day they were created.
insert into merchant_status_changes (merchant_account_number, previous_status_code, status_code, reason_id, comments, changed_by, changed_via, date_created)
select merchant_account_number, null, status_code, 4, 'Initial merchant activation', captured_by, 'system', date_created from merchants;
