import {
  AdapterError,
  ApprovalDenied,
  ApprovalNotFound,
  CallInProgress,
  StoreMisconfigured,
  StoreUnavailable,
  ToolFailed,
  ToolHandlerError,
  ToolNotFound,
  ToolTimeout,
  ToolUsageError,
} from '../errors';

/** An error as it crosses a function boundary: the error's class name, its message and `retryable`. */
export interface WireError {
  readonly type: string;
  readonly message: string;
  readonly retryable: boolean;
}

export function toWireError(error: ToolHandlerError): WireError {
  return { type: error.name, message: error.message, retryable: error.retryable };
}

/** The error a wire error names; an unknown name is an `AdapterError` that keeps `retryable`. */
export function fromWireError(wire: WireError, from: string): ToolHandlerError {
  const message = `${from}: ${wire.message}`;
  switch (wire.type) {
    case 'ToolUsageError':
      return new ToolUsageError(wire.message);
    case 'ToolNotFound':
      return new ToolNotFound(wire.message);
    case 'ApprovalNotFound':
      return new ApprovalNotFound(wire.message);
    case 'ApprovalDenied':
      return new ApprovalDenied(wire.message);
    case 'ToolFailed':
      return new ToolFailed(wire.message);
    case 'ToolTimeout':
      return new ToolTimeout(wire.message);
    case 'CallInProgress':
      return new CallInProgress(wire.message);
    case 'StoreUnavailable':
      return new StoreUnavailable(message);
    case 'StoreMisconfigured':
      return new StoreMisconfigured(message);
    default:
      return new AdapterError(message, { retryable: wire.retryable === true });
  }
}
