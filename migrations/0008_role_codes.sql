-- Merchant user roles as the gateway names them (issue 14; docs.onekhusa.com, Add Merchant User):
-- `roleId` is a string role code ("MERC_ADMIN") of an organisation type ("MER"), and records show
-- the role as "Merchant Administrator". The numeric role_id stays the key (existing users, and
-- clients that send 1–5, keep working); role_code is the gateway's name for the same role.
alter table roles add column role_code varchar(20);
alter table roles add column organisation_type_code char(3) not null default 'MER' check (organisation_type_code ~ '^[A-Z]{3}$');
update roles r set role_code = v.role_code, role_name = v.role_name
  from (values (1, 'MERC_ADMIN', 'Merchant Administrator'),
               (2, 'MERC_INITIATOR', 'Merchant Initiator'),
               (3, 'MERC_REVIEWER', 'Merchant Reviewer'),
               (4, 'MERC_APPROVER', 'Merchant Approver'),
               (5, 'MERC_VIEWER', 'Merchant Viewer')) as v (role_id, role_code, role_name)
 where r.role_id = v.role_id;
alter table roles alter column role_code set not null;
alter table roles add constraint roles_role_code_key unique (role_code);
alter table roles add constraint roles_role_code_format check (role_code ~ '^[A-Z][A-Z0-9_]{0,19}$');

-- The status change audit trail of merchant users (activate, close): who changed it, the gateway's
-- optional reasonId and comments. Written in the transaction that changes the status, only when
-- it does change.
create table merchant_user_status_changes (
  change_id bigint generated always as identity primary key,
  merchant_account_number integer not null,
  user_id uuid not null,
  -- A active, C closed: the status the user was given.
  status_code char(1) not null check (status_code in ('A', 'C')),
  reason_id integer check (reason_id > 0),
  comments varchar(500),
  changed_by varchar(120) not null,
  date_changed timestamptz not null default now(),
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id)
);
create index merchant_user_status_changes_user_idx on merchant_user_status_changes (merchant_account_number, user_id, change_id);
