import { describe, expect, it } from 'vitest';
import { readChallenge } from './www-authenticate.js';

describe('readChallenge', () => {
  it('reads the scheme and a quoted or bare resource_metadata address', () => {
    expect(readChallenge('Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource", scope="x"')).toEqual({
      scheme: 'Bearer',
      resourceMetadata: 'https://a.example/.well-known/oauth-protected-resource',
    });
    expect(readChallenge('Bearer realm="x", resource_metadata=https://a.example/prm')).toEqual({ scheme: 'Bearer', resourceMetadata: 'https://a.example/prm' });
    expect(readChallenge('Basic realm="site"')).toEqual({ scheme: 'Basic', resourceMetadata: null });
  });

  it('refuses what is not a scheme token or not a web address', () => {
    expect(readChallenge(null)).toEqual({ scheme: null, resourceMetadata: null });
    expect(readChallenge('<script>alert(1)</script>')).toEqual({ scheme: null, resourceMetadata: null });
    expect(readChallenge('Bearer resource_metadata="javascript:alert(1)"').resourceMetadata).toBeNull();
    expect(readChallenge('Bearer xresource_metadata="https://a.example/"').resourceMetadata).toBeNull();
  });
});
