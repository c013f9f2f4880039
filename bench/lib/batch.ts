// The 50,000-line E8 batch (about 13 MB of JSON) the disbursements and keyed parts send: valid
// lines with varied names, accounts, amounts and descriptions, the same on every run. Five lines'
// beneficiaries share a surname the disbursements part searches for.

export const BATCH_LINES = 50_000;
export const SEARCH_SURNAME = 'Kalindekafe';
export const SEARCH_MATCHES = 5;

/** mulberry32: the same batch on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST_NAMES = [
  'Chikondi', 'Tiyamike', 'Mphatso', 'Thokozani', 'Kondwani', 'Chisomo', 'Madalitso', 'Limbani', 'Tadala', 'Yamikani', 'Dalitso', 'Atupele',
  'Wezi', 'Chimwemwe', 'Takondwa', 'Mercy', 'Grace', 'Joseph', 'Mary', 'Patrick', 'Esther', 'Blessings', 'Innocent', 'Precious', 'Lucius',
  'Agnes', 'Fatsani', 'Zione', 'Kettie', 'Tamanda', 'Gift', 'Memory', 'Hastings', 'Ulemu', 'Temwa', 'Luka', 'Naphiri', 'Enelesi',
];
const SURNAMES = [
  'Banda', 'Phiri', 'Mwale', 'Chirwa', 'Nyirenda', 'Mkandawire', 'Kamanga', 'Gondwe', 'Msiska', 'Kumwenda', 'Mhango', 'Tembo', 'Zulu',
  'Jere', 'Ngwira', 'Kachale', 'Mbewe', 'Chimombo', 'Kalua', 'Chakwera', 'Mutharika', 'Munthali', 'Kaunda', 'Moyo', 'Lungu', 'Nkhoma',
  'Chiumia', 'Mvula', 'Kapalamula', 'Chilima', 'Mussa', 'Saidi', 'Mponda', 'Chisale', 'Kanyama', 'Msowoya', 'Ndovi', 'Chibwana',
];
const PURPOSES = ['Salary', 'Allowance', 'Overtime', 'Commission', 'Refund', 'Supplier payment', 'Bonus', 'Stipend', 'Expense claim', 'Field allowance'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DEPARTMENTS = ['Operations', 'Finance', 'Logistics', 'Sales', 'Procurement', 'Maintenance', 'Customer care', 'Agronomy', 'Transport'];
const WALLETS = [
  { connectorId: 112400, prefixes: ['26599', '26598'] },
  { connectorId: 112500, prefixes: ['26588', '26589'] },
];
const BANKS = [212188, 221300, 221500, 221700, 221800, 221900, 222000, 222100];

export interface Line {
  beneficiaryName: string;
  connectorId: number;
  beneficiaryAccountNumber: string;
  transactionDescription: string;
  transactionAmount: number;
  sourceReferenceNumber: string;
}

/** Account numbers never end in the sandbox's magic suffixes (9901–9905: fail, time out, reverse). */
function digits(random: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += Math.floor(random() * 10);
  if (/990[0-9]$/.test(s)) s = s.slice(0, -4) + '1' + s.slice(-3);
  return s;
}

export function buildBatch(): { lines: Line[]; wallets: number; banks: number; amountMinor: number } {
  const random = prng(20_260_101);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const searchLines = new Set(Array.from({ length: SEARCH_MATCHES }, (_, i) => Math.floor(((i + 0.5) * BATCH_LINES) / SEARCH_MATCHES)));
  const lines: Line[] = [];
  let wallets = 0;
  let amountMinor = 0;
  for (let i = 0; i < BATCH_LINES; i++) {
    const wallet = random() < 0.6;
    let connectorId: number;
    let account: string;
    if (wallet) {
      const w = pick(WALLETS);
      connectorId = w.connectorId;
      account = pick(w.prefixes) + digits(random, 7);
      wallets += 1;
    } else {
      connectorId = pick(BANKS);
      account = digits(random, 10 + Math.floor(random() * 7)).replace(/^0/, '1');
    }
    const surname = searchLines.has(i) ? SEARCH_SURNAME : pick(SURNAMES);
    const middle = random() < 0.3 ? ` ${String.fromCharCode(65 + Math.floor(random() * 26))}.` : '';
    const minor = 10_000 + Math.floor(random() * 4_990_000); // MWK 100.00 – 50,000.00
    amountMinor += minor;
    const description = `${pick(PURPOSES)} ${pick(MONTHS)} 2026, ${pick(DEPARTMENTS)} staff no. ${digits(random, 6)}, ref ${i + 1}`.padEnd(60, '.').slice(0, 64);
    lines.push({
      beneficiaryName: `${pick(FIRST_NAMES)}${middle} ${surname}`,
      connectorId,
      beneficiaryAccountNumber: account,
      transactionDescription: description,
      transactionAmount: minor / 100,
      sourceReferenceNumber: `PAY-2026-${String(i + 1).padStart(6, '0')}-${digits(random, 4)}`,
    });
  }
  return { lines, wallets, banks: BATCH_LINES - wallets, amountMinor };
}

