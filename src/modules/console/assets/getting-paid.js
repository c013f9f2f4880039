// The console's getting-paid behaviour (issue 19); see console.js for how areas register.
