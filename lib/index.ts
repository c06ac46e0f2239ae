export * from './bedrock-agent-options';
export * from './event-source-options';
export * from './gateway-options';
export * from './invoke-task-props';
export * from './tool-handler';
export * from './tool-handler-ref';
export * from './tool-handler-props';
export * from './tool-manifest';
