// A real authorization server for the end-to-end check of `ctool mcp --auth-issuer`: oidc-provider on
// loopback, with resource indicators (RFC 8707) on and JWT access tokens (RFC 9068) for the resource,
// and two client-credentials clients:
//   concierge  ctool:search ctool:profile, its tokens carry profile_id (ctool's --profile-claim)
//   searcher   ctool:search only
// Usage: node issuer.mjs PORT RESOURCE. Prints the issuer URL on stdout once it listens.
import Provider, { errors } from 'oidc-provider';
import { generateKeyPairSync } from 'node:crypto';

const [port, resource] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const other = 'https://other.example/api'; // a resource that is not ctool: its tokens must be refused

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });

const provider = new Provider(issuer, {
  clients: [
    { client_id: 'concierge', client_secret: 'concierge-secret', grant_types: ['client_credentials'],
      redirect_uris: [], response_types: [], scope: 'ctool:search ctool:profile' },
    { client_id: 'searcher', client_secret: 'searcher-secret', grant_types: ['client_credentials'],
      redirect_uris: [], response_types: [], scope: 'ctool:search' },
  ],
  scopes: ['ctool:search', 'ctool:profile'],
  jwks: { keys: [{ ...rsa, kid: 'rsa-1', use: 'sig' }, { ...ec, kid: 'ec-1', use: 'sig' }] },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo(ctx, indicator) {
        if (indicator === resource) {
          // ES256 for ctool, so the check covers a key other than the default RSA one.
          return { scope: 'ctool:search ctool:profile', audience: resource, accessTokenTTL: 600,
            accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
        }
        if (indicator === other) {
          return { scope: 'ctool:search ctool:profile', audience: other, accessTokenTTL: 600, accessTokenFormat: 'jwt' };
        }
        throw new errors.InvalidTarget();
      },
    },
  },
  extraTokenClaims(ctx, token) {
    if (token.clientId === 'concierge') {
      return { profile_id: 'user_criollo_heavy' };
    }
    return undefined;
  },
});

const server = provider.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write(issuer + '\n');
});
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => server.close(() => process.exit(0)));
}
