-- Batch lines from files (product.md §9; src/modules/disbursements/files.ts): each keeps the row
-- of the file it was read from, and a console upload keeps a line whose amount is not an amount as
-- an invalid line instead of refusing the whole file.
--
-- file_row: the row as a spreadsheet numbers it (the header is row 1, blank rows count), so that
-- the invalid lines' document (batch/downloadErrors, the console's error workbook) names the row
-- the person fixes, as the upload page's "Row N" messages do. line_number stays the line's dense
-- position (1…n), which paging and E3 rely on. Null for E8 (JSON) lines and single payouts.
--
-- amount_minor null: the line's amount was not a number of MWK with at most 2 decimals within the
-- line schema's bounds (error code amountFormat; the text as written is in error_params.amount).
-- Such a line has no amount at all, rather than a made-up 0 that sums, exports and statements
-- would read as money; the check holds that only an invalid line (E, never moved on: lifecycle.ts
-- LINE_STATUS_ON) can lack one, so no line without an amount is ever payable.
--
-- Dropping NOT NULL and adding a nullable column rewrite nothing; the checks are NOT VALID (every
-- existing row passes: none has a file row, all have an amount), so no scan holds the table's lock
-- while the service starts.
alter table payouts
  alter column amount_minor drop not null,
  add column file_row integer;

alter table payouts add constraint payouts_amount_present_check check (amount_minor is not null or status_code = 'E') not valid;
-- A data row comes after the header (row 1); only batch lines come from files.
alter table payouts add constraint payouts_file_row_check check (file_row is null or (file_row >= 2 and batch_number is not null)) not valid;
