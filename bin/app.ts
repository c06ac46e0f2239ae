#!/usr/bin/env node
/**
 * The sample app: `npx cdk synth` synthesizes it, with cdk-nag's AWS Solutions checks on.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SampleStack } from './sample-stack';

const app = new App();
new SampleStack(app, 'ToolHandlerSample');
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
