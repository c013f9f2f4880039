// Never loaded in practice (require('fs') resolves to Node's built-in module first).
module.exports = require('node:fs');
