#!/usr/bin/env node
/**
 * The sample app: `npx cdk synth` synthesizes it, with cdk-nag's AWS Solutions checks on. With
 * CDK_TOOL_HANDLER_SAMPLE_INBOX=1 (what `npm run demo` sets) it has an approvals inbox too.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SampleStack } from './sample-stack';

const app = new App();
new SampleStack(app, 'ToolHandlerSample', { inbox: process.env.CDK_TOOL_HANDLER_SAMPLE_INBOX === '1' });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
