// In your page (a browser script, so not run by the docs test): subscribe once the person asked
// for notifications, and send the subscription to your server, which keeps it as their address.
const registration = await navigator.serviceWorker.register('/sw.js');
if ((await Notification.requestPermission()) === 'granted') {
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: VAPID_PUBLIC_KEY, // the base64url public key of your VAPID pair
  });
  await fetch('/me/push-subscription', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(subscription), // the recipient's address for the web-push channel
  });
}
