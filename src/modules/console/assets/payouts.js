// The console's payouts behaviour (issue 19); see console.js for how areas register.
