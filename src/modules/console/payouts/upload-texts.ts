// The console's texts for payout file uploads, the error workbook and the live batch page (keys
// payoutActions.upload.*, payoutActions.errors.*, payoutActions.live.*), in English and Chichewa.
// Joined into the payouts table (payouts/texts.ts), whose prefix they share.
import type { Entry } from '../kit/i18n.ts';

export const UPLOAD_MESSAGES = {
  // the upload page (payouts/pages/upload.tsx)
  'payoutActions.upload.title': { en: 'Upload a payout file', ny: 'Kwezani fayilo ya malipiro' },
  'payoutActions.upload.link': { en: 'Upload a payout file', ny: 'Kwezani fayilo ya malipiro' },
  'payoutActions.upload.intro': {
    en: 'A CSV or Excel (XLSX) file with a header row and one payout per row: up to {lines} payouts and {megabytes} MB. After the upload every line is checked; the lines that fail are listed with their reasons, and the others go on to approval and payment.',
    ny: 'Fayilo ya CSV kapena Excel (XLSX) yokhala ndi mzere wa mitu ndi malipiro amodzi pa mzere uliwonse: malipiro mpaka {lines} ndi ma MB {megabytes}. Mukakweza, mzere uliwonse umayesedwa; mizere yolakwika imalembedwa ndi zifukwa zake, ndipo ina imapitirira kukavomerezedwa ndi kulipidwa.',
  },
  'payoutActions.upload.columns': { en: 'Columns, named in the first row (in any order and case):', ny: 'Mizati, yotchulidwa mu mzere woyamba (mwa dongosolo kapena kalembedwe kalikonse):' },
  'payoutActions.upload.optional': { en: '(optional)', ny: '(sikofunikira)' },
  'payoutActions.upload.template': { en: 'Download a CSV template', ny: 'Tsitsani chitsanzo cha CSV' },
  'payoutActions.upload.file': { en: 'Payout file (CSV or XLSX)', ny: 'Fayilo ya malipiro (CSV kapena XLSX)' },
  'payoutActions.upload.fileHint': {
    en: 'CSV: UTF-8, comma-separated. XLSX: the first worksheet is read. At most {megabytes} MB.',
    ny: 'CSV: UTF-8, yolekanitsidwa ndi makoma. XLSX: tsamba loyamba limawerengedwa. Osapitirira ma MB {megabytes}.',
  },
  'payoutActions.upload.scheduledDate': { en: 'Pay on (optional)', ny: 'Lipirani pa (sikofunikira)' },
  'payoutActions.upload.scheduledHint': {
    en: 'Leave empty to pay as soon as the batch is approved and its funds transferred; or a date from today up to {days} days ahead.',
    ny: 'Siyani chopanda kanthu kuti mulipire gulu likangovomerezedwa ndi kusamutsa ndalama zake; kapena tsiku kuyambira lero mpaka masiku {days} kutsogolo.',
  },
  'payoutActions.upload.submit': { en: 'Upload and check', ny: 'Kwezani ndi kuyesa' },
  'payoutActions.upload.progressLabel': { en: 'Upload progress', ny: 'Momwe kukweza kukuyendera' },
  'payoutActions.upload.uploading': { en: 'Uploading: {percent} %', ny: 'Tikukweza: {percent} %' },
  'payoutActions.upload.reading': { en: 'Uploaded. Reading the file and creating the batch…', ny: 'Takweza. Tikuwerenga fayilo ndi kupanga gulu…' },
  'payoutActions.upload.failed': {
    en: 'The upload did not finish. Nothing was saved: check your connection and try again.',
    ny: 'Kukweza sikunathe. Palibe chomwe chasungidwa: onani intaneti yanu ndipo yesaninso.',
  },
  'payoutActions.upload.refused': { en: 'The file was not accepted. Nothing was saved.', ny: 'Fayilo sinalandiridwe. Palibe chomwe chasungidwa.' },
  'payoutActions.upload.fileRequired': { en: 'Choose a CSV or XLSX file.', ny: 'Sankhani fayilo ya CSV kapena XLSX.' },
  'payoutActions.upload.fileEmpty': { en: 'The file {name} is empty.', ny: 'Fayilo {name} ilibe kanthu.' },
  'payoutActions.upload.wrongType': {
    en: 'Only CSV (.csv) and Excel (.xlsx) files can be uploaded: {name} is neither.',
    ny: 'Mafayilo a CSV (.csv) ndi Excel (.xlsx) okha ndi omwe angakwezedwe: {name} si limodzi mwa iwo.',
  },
  'payoutActions.upload.tooLarge': {
    en: 'The file is larger than {megabytes} MB, the most a payout file may be. Split it into smaller files.',
    ny: 'Fayilo ndi yaikulu kuposa ma MB {megabytes}, kukula kwakukulu kwa fayilo ya malipiro. Igaweni m\'mafayilo ang\'onoang\'ono.',
  },
  'payoutActions.upload.dateFormat': { en: 'Enter the date as YYYY-MM-DD, or leave it empty.', ny: 'Lembani tsiku ngati YYYY-MM-DD, kapena lisiyeni lopanda kanthu.' },
  'payoutActions.upload.lineProblems': {
    en: 'These rows of the file must be fixed before it can be uploaded:',
    ny: 'Mizere iyi ya fayilo iyenera kukonzedwa musanaikweze:',
  },
  'payoutActions.upload.row': { en: 'Row {row}: {message}', ny: 'Mzere {row}: {message}' },
  'payoutActions.upload.busy': {
    en: 'Other files are being read right now. Nothing was saved: try again in a few seconds.',
    ny: 'Mafayilo ena akuwerengedwa pano. Palibe chomwe chasungidwa: yesaninso pakapita masekondi angapo.',
  },
  'notice.payoutActions.uploaded': {
    en: 'The file was uploaded as this batch. Its lines are checked in the background: the figures below follow.',
    ny: 'Fayilo yakwezedwa ngati gulu ili. Mizere yake ikuyesedwa kumbuyo: ziwerengero za m\'munsimu zimatsatira.',
  },

  // the invalid lines of a batch and its error workbook (payouts/pages/live-batch.tsx)
  'payoutActions.errors.title': { en: 'Invalid lines: {count}', ny: 'Mizere yolakwika: {count}' },
  'payoutActions.errors.text': {
    en: 'These lines will not be paid. Each one is listed below with its reason; the error workbook has them all, to fix and upload again as a new batch.',
    ny: 'Mizere iyi sidzalipidwa. Uliwonse walembedwa m\'munsimu ndi chifukwa chake; buku la zolakwika lili nayo yonse, kuti muikonze ndi kuikwezanso ngati gulu latsopano.',
  },
  'payoutActions.errors.show': { en: 'Show only the invalid lines', ny: 'Onetsani mizere yolakwika yokha' },
  'payoutActions.errors.workbook': { en: 'Download the error workbook (XLSX)', ny: 'Tsitsani buku la zolakwika (XLSX)' },
  'payoutActions.errors.csv': { en: 'Download them as CSV', ny: 'Tsitsani ngati CSV' },
  'payoutActions.errors.unavailableTitle': { en: 'The error workbook is not ready', ny: 'Buku la zolakwika silinakonzeke' },
  'payoutActions.errors.back': { en: 'Back to batch {number}', ny: 'Bwererani ku gulu {number}' },

  // the live batch page (payouts/live-batch.ts, kit/assets/payouts.js)
  'payoutActions.live.label': { en: 'Batch status', ny: 'Momwe gulu lilili' },
  'payoutActions.live.status': { en: 'Status: {status}', ny: 'Momwe lilili: {status}' },
  'payoutActions.live.validating': { en: 'Checking {lines} lines…', ny: 'Tikuyesa mizere {lines}…' },
  'payoutActions.live.validated': { en: '{valid} valid lines, {invalid} invalid', ny: 'Mizere yabwino {valid}, yolakwika {invalid}' },
  'payoutActions.live.progress': {
    en: '{final} of {valid} lines final ({percent} %): {successful} paid, {failed} failed. Paid {paidAmount} of {totalAmount}.',
    ny: 'Mizere {final} mwa {valid} yatha ({percent} %): {successful} yalipidwa, {failed} yalephera. Zalipidwa {paidAmount} mwa {totalAmount}.',
  },
  'payoutActions.live.static': { en: 'Refresh the page to see the latest figures.', ny: 'Tsegulaninso tsambali kuti muone ziwerengero zaposachedwa.' },
  'payoutActions.live.open': { en: 'This page updates by itself.', ny: 'Tsambali limadzisintha lokha.' },
  'payoutActions.live.reconnecting': { en: 'Reconnecting for live updates…', ny: 'Tikulumikizananso kuti tisinthe nthawi yomweyo…' },
  'payoutActions.live.paused': {
    en: 'Live updates paused after a while: refresh the page to see the latest figures.',
    ny: 'Kusintha kwa nthawi yomweyo kwaima patapita nthawi: tsegulaninso tsambali kuti muone ziwerengero zaposachedwa.',
  },
  'payoutActions.live.unavailable': {
    en: 'Live updates are not available now: refresh the page to see the latest figures.',
    ny: 'Kusintha kwa nthawi yomweyo sikukupezeka pano: tsegulaninso tsambali kuti muone ziwerengero zaposachedwa.',
  },
  'payoutActions.live.ended': { en: 'This batch is final: its figures no longer change.', ny: 'Gulu ili latha: ziwerengero zake sizisinthanso.' },
  'payoutActions.live.refresh': { en: 'Refresh', ny: 'Tsegulaninso' },
  'payoutActions.live.announce': { en: 'Batch {number}: {status}. {summary}', ny: 'Gulu {number}: {status}. {summary}' },
} satisfies Record<string, Entry>;
