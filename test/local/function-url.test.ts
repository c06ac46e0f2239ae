/** The function URL in front of the local approvals API (local/function-url.ts): the same contract as the tests' helper. */
import { startFunctionUrlHost } from '../../local/function-url';
import { functionUrlContract } from '../cli/function-url-contract';

functionUrlContract(startFunctionUrlHost, 'x-local-forbidden-reason');
