import { Template } from 'aws-cdk-lib/assertions';
import { SampleStack } from '../../bin/sample-stack';
import { ENV, unbundledApp } from './helpers';

/**
 * The sample stack's whole template, to see what a change changes. Asset hashes (which follow the
 * bundle, and so the runtime's code) are masked; everything else is pinned. The fine-grained tests
 * say whether it is right.
 */
test('the sample stack', () => {
  const stack = new SampleStack(unbundledApp(), 'Sample', { env: ENV });
  const json = JSON.stringify(Template.fromStack(stack).toJSON(), null, 1).replace(/[0-9a-f]{64}/g, '<asset hash>');
  expect(JSON.parse(json)).toMatchSnapshot();
});
