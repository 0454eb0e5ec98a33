// Runs in the page before any of its scripts (page.addInitScript): an EIP-1193 provider, announced through
// EIP-6963 and set as window.ethereum, that forwards every request to the test process (an exposed function
// signing with a viem local account: personal_sign, eth_signTypedData_v4, eth_sendTransaction). Errors come back
// as { code, message } so the page sees EIP-1193 error codes.
(() => {
  const provider = {
    async request({ method, params }) {
      const answer = await window.__testWalletRequest(method, params ?? []);
      if (answer.error) {
        const error = new Error(answer.error.message);
        error.code = answer.error.code;
        throw error;
      }
      return answer.result;
    },
    on() {},
    removeListener() {},
  };
  const info = Object.freeze({
    uuid: '6c0b7a8e-3f51-4a0c-9d8e-2f0a1b9c7d11',
    name: 'Test Wallet',
    icon: 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 20 20%22%3E%3Crect width=%2220%22 height=%2220%22 rx=%224%22 fill=%22%23f6851b%22/%3E%3C/svg%3E',
    rdns: 'dev.tollgate.test-wallet',
  });
  const announce = () =>
    window.dispatchEvent(
      new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }),
    );
  window.addEventListener('eip6963:requestProvider', announce);
  announce();
  window.ethereum = provider;
})();
