/** The function URL in front of the local approvals API (local/function-url.ts), held to the real URL's contract. */
import { startFunctionUrlHost } from '../../local/function-url';
import { functionUrlContract } from '../cli/function-url-contract';

functionUrlContract(startFunctionUrlHost, 'x-local-forbidden-reason');
