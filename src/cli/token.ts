// The token command: an access token for a key pair, through the same public endpoint a merchant's
// own code calls. No operator token needed; the secret given is never echoed back.
import { failure, merchantClient } from './sdk.ts';
import { printJson, required, usage, wholeNumber, type CliCommand } from './shared.ts';

export const commands: CliCommand[] = [
  {
    name: 'token',
    usage: `\
  token --key KEY --secret SECRET --organisation ORGID --merchant ACCOUNTNUMBER
      Get a 5-minute access token for a key pair.
`,
    options: ['key', 'secret', 'organisation', 'merchant'],
    server: true,
    async run(values, base) {
      const body = {
        apiKey: required(values, 'key'),
        apiSecret: required(values, 'secret'),
        organisationId: required(values, 'organisation'),
        merchantAccountNumber: wholeNumber(values, 'merchant') ?? usage('missing --merchant'),
      };
      // Through the SDK, as a merchant's own code would ask (no retry on a refusal: a 401 is final here).
      const answer = await merchantClient(base, body).call('accountGetAccessToken', body).catch((err: unknown) => {
        throw failure(err, base);
      });
      printJson(answer);
    },
  },
];
