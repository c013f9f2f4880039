// The console's developers behaviour (issue 19); see console.js for how areas register.
