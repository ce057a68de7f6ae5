// Scenario tokens: 15 random digits, no leading zero, so they are exact as JSON numbers
// (below 2^53) and the detail form can repeat them as a number.

export function generateScenarioToken(): string {
  const bytes = new Uint8Array(32);
  let token = '';
  while (token.length < 15) {
    crypto.getRandomValues(bytes);
    for (const b of bytes) {
      if (token.length === 15) break;
      // Rejection sampling keeps every digit uniform: 250 = 25 × 10, 252 = 28 × 9.
      if (token.length === 0) {
        if (b < 252) token += String(1 + (b % 9));
      } else if (b < 250) {
        token += String(b % 10);
      }
    }
  }
  return token;
}
