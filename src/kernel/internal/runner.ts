import { createActor, type AnyStateMachine, type Actor, type InputFrom } from 'xstate';

/** One transition of one machine, with the name of what caused it. */
export interface Step {
  from: string;
  to: string;
  /** The event type, or for an eventless transition the name of its guard. */
  event: string;
}

/**
 * Runs a machine as an actor and reports every microstep a send causes, so an eventless
 * follow-up (e.g. `stalled --[stalled_is_terminal]--> failed`) is seen as its own step.
 */
export class MachineRunner<TMachine extends AnyStateMachine> {
  readonly actor: Actor<TMachine>;
  private steps: Step[] = [];
  private current: string;

  constructor(machine: TMachine, input: InputFrom<TMachine>) {
    this.actor = createActor(machine, {
      input,
      inspect: (ev) => {
        if (ev.type !== '@xstate.microstep' || ev.actorRef !== this.actor) return;
        const to = String((ev.snapshot as unknown as { value: unknown }).value);
        const tr = ev._transitions[0];
        const eventType = tr?.eventType || guardName(tr?.guard) || ev.event.type;
        if (to !== this.current) this.steps.push({ from: this.current, to, event: eventType });
        this.current = to;
      },
    });
    this.current = String(machine.config.initial);
    this.actor.start();
    this.current = this.state;
  }

  get state(): string {
    return String((this.actor.getSnapshot() as { value: unknown }).value);
  }

  get done(): boolean {
    return (this.actor.getSnapshot() as { status: string }).status === 'done';
  }

  /** Sends one event and returns the state changes it caused, in order. */
  send(event: Parameters<Actor<TMachine>['send']>[0]): Step[] {
    this.steps = [];
    this.actor.send(event);
    const out = this.steps;
    this.steps = [];
    return out;
  }

  stop(): void {
    this.actor.stop();
  }
}

function guardName(guard: unknown): string | undefined {
  if (typeof guard === 'string') return guard;
  if (guard && typeof guard === 'object' && 'type' in guard) return String(guard.type);
  return undefined;
}
